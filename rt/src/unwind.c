/* C++ exceptions through frames hooked by return-address replacement (Linux).
 *
 * A hooked frame's return address is tz_exit_tramp, which the unwinder cannot place
 * (no FDE says where the frame's caller is): a throw through it ends in
 * std::terminate. So the runtime interposes the unwinder's entry points: before an
 * exception is raised (or rethrown), every hooked frame of the thread gets its real
 * return address back, its shadow frame kept; when a handler starts
 * (__cxa_begin_catch, called by the catching function), the shadow frames whose
 * return slot lies below the catching function's stack pointer are closed
 * (tz_unwound: their exits are recorded at the catch) and the frames still live are
 * hooked again. Cleanups (destructors) run between the two see unhooked frames: a
 * traced call from a landing pad closes the unwound frames below it (the longjmp
 * rule). The definitions are weak: a statically linked unwinder (libgcc_eh) wins,
 * and exceptions then stay untraced there. -finstrument-functions needs none of
 * this: the compiler calls the exit hook from its own cleanups. */
#include <dlfcn.h>

TZ_API int _Unwind_RaiseException(void *exc) __attribute__((weak)) TZ_NOINSTR;
TZ_API int _Unwind_Resume_or_Rethrow(void *exc) __attribute__((weak)) TZ_NOINSTR;
TZ_API void *__cxa_begin_catch(void *exc) __attribute__((weak)) TZ_NOINSTR;

/* the slots of the thread's hooked frames at or above `from` get the trampoline
 * (hook) or their real return address back (!hook) */
static TZ_NOINSTR void set_returns(tz_thread *t, uintptr_t from, int hook)
{
    uintptr_t tramp = (uintptr_t)&tz_exit_tramp;
    for (uint32_t i = 0; i < t->depth; i++) {
        tz_shadow *s = &t->stack[i];
        if (!s->slot || s->slot < from)
            continue;
        uintptr_t *slot = (uintptr_t *)s->slot;
        if (hook && *slot == s->ret)
            *slot = tramp;
        else if (!hook && *slot == tramp)
            *slot = s->ret;
    }
}

static TZ_NOINSTR void *next_symbol(void **cache, const char *name)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}

/* the unwinder's `name` raising exc, the thread's frames unhooked first; returns only
 * when no handler was found (std::terminate follows) */
static TZ_NOINSTR int raise_unhooked(void **cache, const char *name, void *exc)
{
    int (*f)(void *) = (int (*)(void *))next_symbol(cache, name);
    if (!f)
        abort();
    tz_thread *t = tz_tls_thread;
    if (t)
        set_returns(t, 0, 0);
    return f(exc);
}

int _Unwind_RaiseException(void *exc)
{
    static void *real;
    return raise_unhooked(&real, "_Unwind_RaiseException", exc);
}

int _Unwind_Resume_or_Rethrow(void *exc)
{
    static void *real;
    return raise_unhooked(&real, "_Unwind_Resume_or_Rethrow", exc);
}

void *__cxa_begin_catch(void *exc)
{
    static void *real;
    void *(*f)(void *) = (void *(*)(void *))next_symbol(&real, "__cxa_begin_catch");
    if (!f)
        abort();
    tz_thread *t = tz_tls_thread;
    if (t) {
        uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa(); /* the catching function's */
        tz_unwound(t, sp);
        set_returns(t, sp, 1);
    }
    return f(exc);
}
