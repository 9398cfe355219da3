"""Linear-time text tools the actions use: tags, spans, keywords, snippets, images."""
