/* SPDX-License-Identifier: MIT */
/*
 * Where mcp keeps what OAuth gave it: a file per server under the user's
 * configuration directory ($XDG_CONFIG_HOME/mcp/auth, else
 * ~/.config/mcp/auth), named by a hash of the server's URL, mode 0600 in a
 * directory of mode 0700. A file (or the directory) that others may read
 * is refused, never used: tokens are secrets. Written whole to a new file
 * then renamed over the old one, so a crash leaves one or the other.
 *
 *   {"url": "<the server's URL>", "records": {"<key>": {...}, ...}}
 *
 * The keys and records are the library's (mcp_oauth_load_fn).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "cli.h"
#include "text.h"

/* The directory, created (0700) when create; NULL with why. */
static char *store_dir(bool create, char *why, size_t n)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char base[4096];
    if (xdg && xdg[0] == '/')
        snprintf(base, sizeof base, "%s", xdg);
    else if (home && home[0] == '/')
        snprintf(base, sizeof base, "%s/.config", home);
    else {
        snprintf(why, n, "neither XDG_CONFIG_HOME nor HOME names a directory");
        return NULL;
    }
    char path[4200];
    const char *parts[] = {"", "/mcp", "/mcp/auth"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s%s", base, parts[i]);
        if (create && mkdir(path, i == 2 ? 0700 : 0755) != 0 && errno != EEXIST) {
            snprintf(why, n, "cannot make %s: %s", path, strerror(errno));
            return NULL;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISDIR(st.st_mode) || (st.st_mode & 077) || st.st_uid != getuid()) {
        snprintf(why, n, "%s is not a directory of yours that only you can open (chmod 700 it)",
                 path);
        return NULL;
    }
    return strdup(path);
}

bool cli_auth_store_open(cli_auth_store *s, const char *url, bool create, char *why, size_t n)
{
    memset(s, 0, sizeof *s);
    char *dir = store_dir(create, why, n);
    if (!dir)
        return false;
    unsigned char h[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)url, strlen(url), h);
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", h[i]);
    size_t len = strlen(dir) + 40;
    s->path = malloc(len);
    s->url = strdup(url);
    if (s->path)
        snprintf(s->path, len, "%s/%s.json", dir, hex);
    free(dir);
    if (!s->path || !s->url) {
        cli_auth_store_close(s);
        snprintf(why, n, "out of memory");
        return false;
    }
    return true;
}

void cli_auth_store_close(cli_auth_store *s)
{
    free(s->path);
    free(s->url);
    memset(s, 0, sizeof *s);
}

/* The file's document (NULL: none yet). False with why when it cannot be
 * used: others may read it, it is not ours, not JSON, or another server's. */
bool cli_auth_store_read(const char *path, const char *url, mcp_json_doc **out, char *why,
                         size_t n)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return true;
        snprintf(why, n, "cannot open %s: %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    mcp_buf b;
    mcp_buf_init(&b, (size_t)1 << 20, NULL);
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (ok && ((st.st_mode & 077) || st.st_uid != getuid())) {
        snprintf(why, n, "%s may be read by others: refused (chmod 600 it, then log in again)",
                 path);
        ok = false;
    } else if (!ok) {
        snprintf(why, n, "%s is not a regular file", path);
    }
    char chunk[4096];
    ssize_t got;
    while (ok && (got = read(fd, chunk, sizeof chunk)) > 0)
        if (mcp_buf_append(&b, chunk, (size_t)got) != MCP_OK) {
            snprintf(why, n, "%s is over 1 MiB", path);
            ok = false;
        }
    close(fd);
    const mcp_json *root = NULL;
    if (ok && (mcp_json_parse(b.data ? b.data : "", b.len, NULL, NULL, out, NULL) != MCP_OK ||
               mcp_json_typeof(root = mcp_json_doc_root(*out)) != MCP_JSON_OBJECT)) {
        snprintf(why, n, "%s is not what mcp wrote (not a JSON object)", path);
        ok = false;
    }
    const char *owner = ok ? mcp_json_string(mcp_json_object_get(root, "url"), NULL) : NULL;
    if (ok && (!owner || (url && strcmp(owner, url)))) {
        snprintf(why, n, "%s belongs to another server", path);
        ok = false;
    }
    mcp_buf_free(&b);
    if (!ok) {
        mcp_json_doc_free(*out);
        *out = NULL;
    }
    return ok;
}

/* mcp_oauth_load_fn over the file. */
static int store_load(void *ud, const char *key, char **value)
{
    cli_auth_store *s = ud;
    *value = NULL;
    mcp_json_doc *d;
    if (!cli_auth_store_read(s->path, s->url, &d, s->why, sizeof s->why))
        return MCP_ERR_IO;
    const mcp_json *rec = mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(d), "records"),
                                              key);
    int rc = MCP_OK;
    if (rec) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        rc = mcp_json_write(rec, &b);
        if (rc == MCP_OK && !(*value = strdup(b.data)))
            rc = MCP_ERR_NOMEM;
        mcp_buf_free(&b);
    }
    mcp_json_doc_free(d);
    return rc;
}

/* The file's text written to a new file beside it, then renamed over it. */
static int write_file(const char *path, const mcp_buf *text, char *why, size_t n)
{
    size_t len = strlen(path) + 8;
    char *tmp = malloc(len);
    if (!tmp)
        return MCP_ERR_NOMEM;
    snprintf(tmp, len, "%s.new", path);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool ok = fd >= 0;
    size_t off = 0;
    while (ok && off < text->len) {
        ssize_t w = write(fd, text->data + off, text->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        off += ok ? (size_t)w : 0;
    }
    ok = ok && fsync(fd) == 0;
    if (fd >= 0)
        ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        snprintf(why, n, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return ok ? MCP_OK : MCP_ERR_IO;
}

/* mcp_oauth_save_fn over the file: the records kept but key's, which is
 * value (NULL: gone). A file left with no record is removed. */
static int store_save(void *ud, const char *key, const char *value)
{
    cli_auth_store *s = ud;
    mcp_json_doc *old, *add = NULL;
    if (!cli_auth_store_read(s->path, s->url, &old, s->why, sizeof s->why))
        return MCP_ERR_IO;
    if (value && mcp_json_parse(value, strlen(value), NULL, NULL, &add, NULL) != MCP_OK) {
        mcp_json_doc_free(old);
        return MCP_ERR_INVALID_ARG;
    }
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *root = mcp_json_new_object(d), *records = mcp_json_new_object(d);
    mcp_json_object_set(d, root, "url", mcp_json_new_string(d, s->url));
    mcp_json_object_set(d, root, "records", records);
    const mcp_json *had = old ? mcp_json_object_get(mcp_json_doc_root(old), "records") : NULL;
    size_t kept = 0;
    for (size_t i = 0; i < mcp_json_object_size(had); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(had, i, &k, &kn);
        if (strlen(key) == kn && !memcmp(k, key, kn))
            continue;
        mcp_json_object_setn(d, records, k, kn, mcp_json_copy(d, v));
        kept++;
    }
    if (add) {
        mcp_json_object_set(d, records, key, mcp_json_copy(d, mcp_json_doc_root(add)));
        kept++;
    }
    int rc = mcp_json_doc_error(d);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    if (rc == MCP_OK && kept)
        rc = mcp_json_write(root, &b);
    if (rc == MCP_OK && kept)
        rc = write_file(s->path, &b, s->why, sizeof s->why);
    else if (rc == MCP_OK && unlink(s->path) != 0 && errno != ENOENT)
        rc = MCP_ERR_IO;
    mcp_buf_free(&b);
    mcp_json_doc_free(d);
    mcp_json_doc_free(add);
    mcp_json_doc_free(old);
    return rc;
}

/* mcp_oauth_lock_fn: flock on a file beside the kept one, so that two mcp
 * processes never spend one refresh token both. */
static int store_lock(void *ud, const char *key, bool held)
{
    cli_auth_store *s = ud;
    (void)key;
    if (!held) {
        if (s->lock_fd >= 0) {
            flock(s->lock_fd, LOCK_UN);
            close(s->lock_fd);
        }
        s->lock_fd = -1;
        return MCP_OK;
    }
    size_t len = strlen(s->path) + 8;
    char *path = malloc(len);
    if (!path)
        return MCP_ERR_NOMEM;
    snprintf(path, len, "%s.lock", s->path);
    s->lock_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    free(path);
    if (s->lock_fd < 0)
        return MCP_ERR_IO;
    while (flock(s->lock_fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(s->lock_fd);
            s->lock_fd = -1;
            return MCP_ERR_IO;
        }
    return MCP_OK;
}

void cli_auth_store_use(cli_auth_store *s, mcp_oauth_options *o)
{
    s->lock_fd = -1;
    o->load = store_load;
    o->save = store_save;
    o->lock = store_lock;
    o->store_user_data = s;
}


int cli_auth_store_each(void (*show)(const char *path, const mcp_json *root, bool json), bool json)
{
    char why[512];
    char *dir = store_dir(false, why, sizeof why);
    if (!dir) {
        fprintf(stderr, "mcp: no authorization kept (%s)\n", cli_safe(why));
        return 1;
    }
    DIR *dh = opendir(dir);
    struct dirent *ent;
    int shown = 0;
    while (dh && (ent = readdir(dh))) {
        size_t len = strlen(ent->d_name);
        if (len != 37 || strcmp(ent->d_name + 32, ".json"))
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        mcp_json_doc *d = NULL;
        if (!cli_auth_store_read(path, NULL, &d, why, sizeof why)) {
            fprintf(stderr, "mcp: %s\n", cli_safe(why));
        } else if (d) {
            show(path, mcp_json_doc_root(d), json);
            shown++;
        }
        mcp_json_doc_free(d);
    }
    if (dh)
        closedir(dh);
    free(dir);
    if (!shown)
        fprintf(stderr, "mcp: no authorization kept\n");
    return shown ? 0 : 1;
}
