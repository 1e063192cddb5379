/*
 * bcrypt for the BEAM: a NIF over libxcrypt's crypt_r and crypt_gensalt_rn.
 *
 * Hex (and with it bcrypt_elixir) is out of reach here, and libxcrypt is the
 * bcrypt every Debian system already links for its own passwords. Both
 * functions run on dirty CPU schedulers: a hash at cost 10 takes tens of
 * milliseconds, far beyond the ~1 ms a NIF may hold a normal scheduler.
 */
#include <crypt.h>
#include <string.h>

#include "erl_nif.h"

/* bcrypt reads at most 72 bytes; the contract refuses longer passwords. */
#define MAX_PASSWORD 72

static ERL_NIF_TERM atom_ok;
static ERL_NIF_TERM atom_error;
static ERL_NIF_TERM atom_true;
static ERL_NIF_TERM atom_false;

static int load(ErlNifEnv *env, void **priv, ERL_NIF_TERM info)
{
    (void)priv;
    (void)info;
    atom_ok = enif_make_atom(env, "ok");
    atom_error = enif_make_atom(env, "error");
    atom_true = enif_make_atom(env, "true");
    atom_false = enif_make_atom(env, "false");
    return 0;
}

static ERL_NIF_TERM make_error(ErlNifEnv *env, const char *reason)
{
    return enif_make_tuple2(env, atom_error, enif_make_atom(env, reason));
}

/* Copies a password binary into a C string; crypt(3) cannot see past a NUL. */
static int password_arg(ErlNifEnv *env, ERL_NIF_TERM term, char out[MAX_PASSWORD + 1])
{
    ErlNifBinary bin;
    if (!enif_inspect_binary(env, term, &bin) || bin.size > MAX_PASSWORD ||
        memchr(bin.data, '\0', bin.size) != NULL)
        return 0;
    memcpy(out, bin.data, bin.size);
    out[bin.size] = '\0';
    return 1;
}

/* Runs crypt_r with setting (a salt or a whole hash); NULL when it fails. */
static const char *run_crypt(const char *password, const char *setting, struct crypt_data *data)
{
    memset(data, 0, sizeof *data);
    const char *out = crypt_r(password, setting, data);
    /* libxcrypt signals failure with NULL or a string starting with '*'. */
    if (out == NULL || out[0] == '*')
        return NULL;
    return out;
}

/* hash(password, cost) -> {:ok, "$2b$..."} | {:error, reason} */
static ERL_NIF_TERM hash_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    char password[MAX_PASSWORD + 1];
    int cost;
    if (!password_arg(env, argv[0], password) || !enif_get_int(env, argv[1], &cost))
        return enif_make_badarg(env);

    char salt[CRYPT_GENSALT_OUTPUT_SIZE];
    /* A NULL rbytes makes libxcrypt take the salt from the OS's random source. */
    if (crypt_gensalt_rn("$2b$", (unsigned long)cost, NULL, 0, salt, sizeof salt) == NULL)
        return make_error(env, "bad_cost");

    /* struct crypt_data is 32 KiB: too big for a dirty scheduler's stack. */
    struct crypt_data *data = enif_alloc(sizeof *data);
    if (data == NULL)
        return make_error(env, "enomem");
    ERL_NIF_TERM result;
    const char *hash = run_crypt(password, salt, data);
    if (hash == NULL) {
        result = make_error(env, "crypt_failed");
    } else {
        size_t len = strlen(hash);
        ERL_NIF_TERM bin;
        memcpy(enif_make_new_binary(env, len, &bin), hash, len);
        result = enif_make_tuple2(env, atom_ok, bin);
    }
    memset(data, 0, sizeof *data);
    enif_free(data);
    memset(password, 0, sizeof password);
    return result;
}

/* verify(password, hash) -> true | false; accepts $2a$, $2b$ and $2y$ hashes. */
static ERL_NIF_TERM verify_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    char password[MAX_PASSWORD + 1];
    ErlNifBinary stored;
    if (!password_arg(env, argv[0], password) || !enif_inspect_binary(env, argv[1], &stored))
        return enif_make_badarg(env);
    char setting[CRYPT_OUTPUT_SIZE];
    if (stored.size < 7 || stored.size >= sizeof setting || memcmp(stored.data, "$2", 2) != 0)
        return atom_false;
    memcpy(setting, stored.data, stored.size);
    setting[stored.size] = '\0';

    struct crypt_data *data = enif_alloc(sizeof *data);
    if (data == NULL)
        return enif_raise_exception(env, enif_make_atom(env, "enomem"));
    const char *hash = run_crypt(password, setting, data);
    /* Constant-time comparison: the time must not tell how many bytes matched. */
    unsigned char diff = 1;
    if (hash != NULL && strlen(hash) == stored.size) {
        diff = 0;
        for (size_t i = 0; i < stored.size; i++)
            diff |= (unsigned char)hash[i] ^ stored.data[i];
    }
    memset(data, 0, sizeof *data);
    enif_free(data);
    memset(password, 0, sizeof password);
    return diff == 0 ? atom_true : atom_false;
}

static ErlNifFunc funcs[] = {
    {"hash", 2, hash_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
    {"verify", 2, verify_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
};

ERL_NIF_INIT(Elixir.Concur.Bcrypt, funcs, load, NULL, NULL, NULL)
