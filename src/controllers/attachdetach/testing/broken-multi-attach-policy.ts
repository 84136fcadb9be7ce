/**
 * A deliberately broken Multi-Attach policy: every volume may be attached to several nodes, so an
 * RWO volume whose pod moves is attached to the second node while still attached to the first. Only
 * for showing that the simulator's invariants and `kvol sim explore` catch a broken controller.
 */
import type { MultiAttachPolicy } from "../reconciler/multi-attach-policy.ts";

export const brokenMultiAttachPolicy: MultiAttachPolicy = { allowsMultiAttach: () => true };
