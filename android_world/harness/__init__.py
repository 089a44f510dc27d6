"""The harness: runs tasks on an environment with an agent, writes and checks what a run needs."""
