/** Public surface of the fetch stage: what the engine's `fetch` steps and `lock` CLI call. */
export { fetchEntry, type FetchEntryOptions, type FetchEntryResult, type FetchSource } from "./fetch-entry.ts";
export { checkLock, formatLockCheck, type LockCheckReport, type LockProblem, type LockProblemKind } from "./lock-check.ts";
export { updateLockEntry, measureEntry, measurePlacedFile, withDigest, type UpdateLockOptions, type EntryDigestChange } from "./lock-update.ts";
export { unpackFile, unpackers } from "./unpack.ts";
export { hashFile, type Digest } from "./sinks.ts";
export { transfer, classifyNetworkError, type TransferOptions, type TransferResult, type FetchLike } from "./transfer.ts";
export { findInDataDir } from "./data-dir.ts";
export { checkPlausibleRelease } from "./plausibility.ts";
