"""The model-backed roles: the Maestro (planner), the Section Leader (executor), Quality Control (verifier personas), perception, and the probes that ask them."""
