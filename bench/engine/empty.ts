/** Empty module: the start-up floor of `node --import tsx` in the engine benchmark. */
export {};
