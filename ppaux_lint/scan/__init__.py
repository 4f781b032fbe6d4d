"""The prefilter: a byte-level test that a file cannot change any finding, so most of a large tree is never
parsed, with the token search that is its inner loop and the lookahead that guesses its fixpoint.

Takes file bytes and token sets; gives yes/no answers and the tokens a summary adds. It reads no file itself
(the cache owner hands it bytes) and must never import the index, the rules, the cache or anything above.
"""
