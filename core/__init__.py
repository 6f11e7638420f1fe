"""What both apps share, below them: imports nothing of campaigns, results or htrbrowser."""
