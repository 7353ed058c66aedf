"""The affected-check selector: which tests and checks a diff needs (``lanes affected``)."""
