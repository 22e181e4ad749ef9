"""The engine under the array API's chapters, bottom up: device (storage, imported memory,
the backend library's views), dtypes, array (the Array object), views, kernel (the kernel
path: calls into the operator core, InplaceCopy, our operator for a function where the
operator supports it), scalars (Python scalars and promotion), library (the library path:
one function per kind of call), args (argument normalization), dlpack / interop / asarray
(data in and out), and the operations the Array's own methods run: ufunc (elementwise),
indexing, matmul. Engine modules never import a chapter.
"""
