"""``tbkit serve``: the Flask app over a DataProvider (:mod:`.app`), the waitress server (:mod:`.serve`)."""
