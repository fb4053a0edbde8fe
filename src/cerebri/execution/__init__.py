"""The execution stage (issue #12, in progress): the durable store; workers come next.

See :mod:`cerebri.execution.store`.
"""
