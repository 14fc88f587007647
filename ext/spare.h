/* How many freed objects of one type an extension keeps for the next ones it
 * makes, as CPython keeps its tuples and floats (ext/_fast.c: Tensors;
 * ext/_core.c: Buffers): a conversion makes and frees one of each, and
 * allocating and freeing an object the GC tracks is a fifth of the cheapest.
 * The list is read and written under the GIL only: none is kept in a
 * free-threaded build. */
#ifndef UT_SPARE_H
#define UT_SPARE_H

#ifdef Py_GIL_DISABLED
#define UT_SPARES 0
#else
#define UT_SPARES 16
#endif

#endif /* UT_SPARE_H */
