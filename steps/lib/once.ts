/**
 * A value made on first use and kept. The Arrow schemas of the step modules are made this way:
 * a module that builds one at load time loads apache-arrow with it, and every command loads the
 * step modules (the launcher's builds load apache-arrow on first use: scripts/build.mjs).
 */
export function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
