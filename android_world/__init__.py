"""Celil: an AndroidWorld-compatible harness, a simulated phone and the Celil Conductor agent."""
