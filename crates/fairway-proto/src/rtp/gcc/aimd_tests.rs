// Unit tests come in the next commit.
