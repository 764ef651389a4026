//===- Log.cpp - Messages for people --------------------------------------===//

#include "attn/Runtime/Log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace attn {

namespace {

bool stderrEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("ATTN_LOG");
    return value && *value && std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

std::mutex handlerMutex;
LogHandler handler = nullptr;
void *handlerUser = nullptr;

} // namespace

void setLogHandler(LogHandler newHandler, void *user) {
  std::lock_guard<std::mutex> lock(handlerMutex);
  handler = newHandler;
  handlerUser = user;
}

bool logEnabled() {
  if (stderrEnabled())
    return true;
  std::lock_guard<std::mutex> lock(handlerMutex);
  return handler != nullptr;
}

void log(const std::string &message) {
  if (stderrEnabled())
    std::fprintf(stderr, "attn: %s\n", message.c_str());
  LogHandler h;
  void *user;
  {
    std::lock_guard<std::mutex> lock(handlerMutex);
    h = handler;
    user = handlerUser;
  }
  if (h)
    h(message.c_str(), user);
}

} // namespace attn
