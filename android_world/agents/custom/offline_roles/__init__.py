"""The offline roles: rule-based planner, executor and judges that need no model (a baseline, never an LLM result)."""
