"""Local stand-ins for a laptop and for tests: a Kubernetes API double, an S3 store with accounts, a demo scene and a simulator."""
