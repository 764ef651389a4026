//===- Log.h - Messages for people: compiles, loads, notes ------*- C++ -*-===//
//
// What the runtime does that costs time (each compile: kernel, milliseconds,
// cache outcome; each module load) and notes (an arch without a tuned cost
// model). Messages go to stderr, prefixed "attn: ", when $ATTN_LOG is set to
// anything but "" or "0", and to the handler if one is set (the Python
// package forwards them to its "attn" logger).
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUNTIME_LOG_H
#define ATTN_RUNTIME_LOG_H

#include <string>

namespace attn {

using LogHandler = void (*)(const char *message, void *user);

/// Sets (or with null, clears) the handler that receives every message.
void setLogHandler(LogHandler handler, void *user);

/// True if a message would go anywhere: callers skip formatting otherwise.
bool logEnabled();

/// Sends `message` to stderr ($ATTN_LOG) and the handler.
void log(const std::string &message);

} // namespace attn

#endif // ATTN_RUNTIME_LOG_H
