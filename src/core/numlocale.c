/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* uselocale, newlocale */
#include "core/numlocale.h"

#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

static locale_t enter_c(void)
{
    pthread_once(&c_locale_once, c_locale_init);
    return c_locale ? uselocale(c_locale) : (locale_t)0;
}

static void leave_c(locale_t old)
{
    if (old)
        uselocale(old);
}

int mcp__strtod_c(const char *text, size_t len, double *out)
{
    char small[128];
    char *copy = small;
    if (len >= sizeof small) {
        copy = malloc(len + 1);
        if (!copy)
            return -1;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    locale_t old = enter_c();
    *out = strtod(copy, NULL);
    leave_c(old);
    if (copy != small)
        free(copy);
    return 0;
}

int mcp__format_g_c(char *buf, size_t size, int precision, double d)
{
    locale_t old = enter_c();
    int n = snprintf(buf, size, "%.*g", precision, d);
    leave_c(old);
    return n;
}
