/* SPDX-License-Identifier: MIT */
#ifndef FSA_EXPORT_H
#define FSA_EXPORT_H

/* The analyzer libraries are built with hidden visibility; FSA_API marks what they export. */
#if defined(FSA_BUILDING) && defined(__GNUC__)
#define FSA_API __attribute__((visibility("default")))
#else
#define FSA_API
#endif

#endif /* FSA_EXPORT_H */
