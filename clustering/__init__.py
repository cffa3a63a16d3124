"""Grouping entries into named topics (jieba + English tokens, TF-IDF, KMeans). No Textual."""
