/** The readers' model-selection rule as the tests check it: the first epoch with the best (dev EM, dev F1). */
export interface SelectionResult {
  readonly best_epoch: number;
  readonly dev_em_per_epoch: Record<string, number>;
  readonly dev_f1_per_epoch: Record<string, number>;
}

/** The epoch the rule keeps: highest dev EM, ties by dev F1, then the earliest (epoch 0 is the start, when scored). */
export function keptEpoch(r: SelectionResult): number {
  const epochs = Object.keys(r.dev_em_per_epoch).map(Number).sort((a, b) => a - b);
  let best = epochs[0]!;
  for (const e of epochs.slice(1)) {
    const [em, f1, bem, bf1] = [r.dev_em_per_epoch[e]!, r.dev_f1_per_epoch[e]!, r.dev_em_per_epoch[best]!, r.dev_f1_per_epoch[best]!];
    if (em > bem || (em === bem && f1 > bf1)) best = e;
  }
  return best;
}
