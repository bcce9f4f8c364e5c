// `toolgate/store/memory`: a run store in memory (tests, one-off scripts).
export { MemoryRunStore } from '../store/memory/memory-run-store.ts';
export { MemoryLimits } from '../store/memory/memory-limits.ts';
