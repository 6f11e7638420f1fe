"""What campaigns read from the results store: each running volume's progress.json, with the person's account."""
