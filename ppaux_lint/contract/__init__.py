"""SGLang's side of the pipeline-parallel contract, word for word: the hook and attribute names classes are
recognised by, and the error texts its transport helpers raise.

Takes nothing; gives constants (and the near-miss test for misspelt hook names) that the summaries, the
rules, ``verify`` and the reports quote, so a message says exactly what SGLang would. It must never import
anything of ``ppaux_lint`` but :mod:`ppaux_lint.support`.
"""
