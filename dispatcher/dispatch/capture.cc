#include "dispatcher/dispatch/capture.h"

namespace sy::core {
namespace {

thread_local CallInterceptor* t_interceptor = nullptr;

}  // namespace

ScopedInterception::ScopedInterception(CallInterceptor* interceptor)
    : previous_(t_interceptor) {
  t_interceptor = interceptor;
}

ScopedInterception::~ScopedInterception() { t_interceptor = previous_; }

CallInterceptor* ActiveInterceptor() { return t_interceptor; }

}  // namespace sy::core
