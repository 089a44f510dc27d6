"""The Conductor loop: CelilAgent and the parts of one step (observe, propose, gate, act, check progress, rehearse, end)."""
