"""Working memory for an episode and the episodic memory of verified plans (store, goal templates, meaning, review API)."""
