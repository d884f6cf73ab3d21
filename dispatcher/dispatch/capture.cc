#include "dispatcher/dispatch/capture.h"

namespace sy::core {
namespace {

thread_local CallInterceptor* t_interceptor = nullptr;

}  // namespace

ScopedInterception::ScopedInterception(CallInterceptor* interceptor)
    : previous_(t_interceptor) {
  t_interceptor = interceptor;
  capture_internal::active_anywhere.fetch_add(1, std::memory_order_relaxed);
}

ScopedInterception::~ScopedInterception() {
  capture_internal::active_anywhere.fetch_sub(1, std::memory_order_relaxed);
  t_interceptor = previous_;
}

CallInterceptor* ActiveInterceptor() { return t_interceptor; }

}  // namespace sy::core
