"""Reading the private results store with a person's own account: the S3 client and its outage watch, keys
and addresses under the results URL, what an account may read (access proofs) and the per-person budget."""
