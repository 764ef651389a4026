//===- Templates.h - Kernel templates embedded in the library ---*- C++ -*-===//

#ifndef ATTN_RUNTIME_TEMPLATES_H
#define ATTN_RUNTIME_TEMPLATES_H

#include <vector>

namespace attn {

/// One file of kernels-templates/, by its include name ("attn/common.cuh").
struct EmbeddedTemplate {
  const char *name;
  const char *source;
};

/// Every template, embedded at build time.
const std::vector<EmbeddedTemplate> &embeddedTemplates();

} // namespace attn

#endif // ATTN_RUNTIME_TEMPLATES_H
