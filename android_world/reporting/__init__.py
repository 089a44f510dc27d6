"""Reports of finished runs: HTML pages, CSV summaries, episode exports and bundles."""
