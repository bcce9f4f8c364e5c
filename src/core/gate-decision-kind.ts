/** The gate's verdict on one tool call (gate_decision.decision). Apart from events.ts so that replay.ts can name it. */
export type GateDecisionKind = 'allowed' | 'denied' | 'approval_required' | 'dry_run' | 'invalid';
