// only a comment

