"""Reading the cluster: the client, the informers, the board that projects each namespace on change,
the status writer and its Lease, and `reading`: what the request's person may see of it."""
