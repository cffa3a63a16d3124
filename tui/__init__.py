"""The Textual reader: a thin view over topiclens.store and topiclens.clustering."""
