/* C++ streams that stage through DYAD, in the shape of C DYAD's dyad_stream_api.hpp:
 * ifstream_dyad's open consumes the file (waiting until it is produced) before opening
 * it; ofstream_dyad's close produces it. fstream_dyad does both, by its open mode.
 * Header-only over DYAD's C API in libcouplet-dyad.so (link with -lcouplet-dyad); the
 * context comes from the DYAD_* environment unless one was initialised already. */
#ifndef DYAD_STREAM_DYAD_STREAM_API_HPP
#define DYAD_STREAM_DYAD_STREAM_API_HPP

#include <dyad/client/dyad_client.h>
#include <dyad/core/dyad_ctx.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>

namespace dyad {

/* dyad_stream_core holds the context a stream stages with. */
class dyad_stream_core {
   public:
    /* init takes the process's DYAD context, initialising it from the environment. */
    void init() {
        if (dyad_ctx_get() == nullptr) dyad_ctx_init(DYAD_COMM_RECV, nullptr);
        m_ctx = dyad_ctx_get();
        m_initialized = true;
    }
    void set_initialized() { m_initialized = true; }
    bool is_initialized() const { return m_initialized; }
    dyad_ctx_t *ctx() const { return m_ctx; }

    bool is_dyad_consumer_path(const std::string &path) const {
        return m_ctx && under(couplet_dyad_cons_path(m_ctx), path);
    }
    bool is_dyad_producer_path(const std::string &path) const {
        return m_ctx && under(couplet_dyad_prod_path(m_ctx), path);
    }

    /* open_sync consumes path if it is under the consumer directory. */
    dyad_rc_t open_sync(const char *path) const {
        if (!is_dyad_consumer_path(path)) return DYAD_RC_OK;
        return dyad_consume(m_ctx, path);
    }

    /* close_sync produces path if it is under the producer directory. */
    dyad_rc_t close_sync(const char *path) const {
        if (!is_dyad_producer_path(path)) return DYAD_RC_OK;
        return dyad_produce(m_ctx, path);
    }

   private:
    static bool under(const char *dir, const std::string &path) {
        if (dir == nullptr || *dir == 0 || path.empty()) return false;
        std::filesystem::path p(path);
        if (p.is_relative()) {
            char cwd[PATH_MAX];
            if (getcwd(cwd, sizeof cwd) == nullptr) return false;
            p = std::filesystem::path(cwd) / p;
        }
        std::string s = p.lexically_normal().string(), d(dir);
        return s.size() > d.size() + 1 && s.compare(0, d.size(), d) == 0 && (d == "/" || s[d.size()] == '/');
    }

    dyad_ctx_t *m_ctx = nullptr;
    bool m_initialized = false;
};

/* basic_ifstream_dyad wraps std::basic_ifstream: opening consumes. */
template <typename _CharT, typename _Traits = std::char_traits<_CharT>>
class basic_ifstream_dyad {
   public:
    using basic_ifstream = std::basic_ifstream<_CharT, _Traits>;

    basic_ifstream_dyad() : m_stream(new basic_ifstream()) { m_core.init(); }
    explicit basic_ifstream_dyad(const dyad_stream_core &core) : m_core(core), m_stream(new basic_ifstream()) {}
    explicit basic_ifstream_dyad(const char *filename, std::ios_base::openmode mode = std::ios_base::in)
        : basic_ifstream_dyad() {
        open(filename, mode);
    }
    explicit basic_ifstream_dyad(const std::string &filename, std::ios_base::openmode mode = std::ios_base::in)
        : basic_ifstream_dyad(filename.c_str(), mode) {}
    basic_ifstream_dyad(const basic_ifstream_dyad &) = delete;
    basic_ifstream_dyad(basic_ifstream_dyad &&) = default;
    basic_ifstream_dyad &operator=(basic_ifstream_dyad &&) = default;
    ~basic_ifstream_dyad() = default;

    /* open consumes filename, then opens the local copy; a failed staging leaves the
     * stream closed with failbit set (last_rc says why). */
    void open(const char *filename, std::ios_base::openmode mode = std::ios_base::in) {
        m_rc = m_core.open_sync(filename);
        if (DYAD_IS_ERROR(m_rc)) {
            m_stream->setstate(std::ios_base::failbit);
            return;
        }
        m_stream->open(filename, mode);
        m_filename = filename;
    }
    void open(const std::string &filename, std::ios_base::openmode mode = std::ios_base::in) {
        open(filename.c_str(), mode);
    }
    bool is_open() const { return m_stream && m_stream->is_open(); }
    void close() {
        if (m_stream) m_stream->close();
    }
    std::basic_filebuf<_CharT, _Traits> *rdbuf() const { return m_stream ? m_stream->rdbuf() : nullptr; }
    basic_ifstream &get_stream() { return *m_stream; }
    void init(const dyad_stream_core &core) { m_core = core, m_core.set_initialized(); }
    const dyad_stream_core &core() const { return m_core; }
    dyad_rc_t last_rc() const { return m_rc; }
    void swap(basic_ifstream_dyad &rhs) {
        std::swap(m_core, rhs.m_core), m_stream.swap(rhs.m_stream), m_filename.swap(rhs.m_filename);
        std::swap(m_rc, rhs.m_rc);
    }

   private:
    dyad_stream_core m_core;
    std::unique_ptr<basic_ifstream> m_stream;
    std::string m_filename;
    dyad_rc_t m_rc = DYAD_RC_OK;
};

/* basic_ofstream_dyad wraps std::basic_ofstream: closing produces. */
template <typename _CharT, typename _Traits = std::char_traits<_CharT>>
class basic_ofstream_dyad {
   public:
    using basic_ofstream = std::basic_ofstream<_CharT, _Traits>;

    basic_ofstream_dyad() : m_stream(new basic_ofstream()) { m_core.init(); }
    explicit basic_ofstream_dyad(const dyad_stream_core &core) : m_core(core), m_stream(new basic_ofstream()) {}
    explicit basic_ofstream_dyad(const char *filename, std::ios_base::openmode mode = std::ios_base::out)
        : basic_ofstream_dyad() {
        open(filename, mode);
    }
    explicit basic_ofstream_dyad(const std::string &filename, std::ios_base::openmode mode = std::ios_base::out)
        : basic_ofstream_dyad(filename.c_str(), mode) {}
    basic_ofstream_dyad(const basic_ofstream_dyad &) = delete;
    basic_ofstream_dyad(basic_ofstream_dyad &&) = default;
    basic_ofstream_dyad &operator=(basic_ofstream_dyad &&) = default;
    /* The destructor closes, and so produces, a file still open. */
    ~basic_ofstream_dyad() {
        if (is_open()) close();
    }

    void open(const char *filename, std::ios_base::openmode mode = std::ios_base::out) {
        m_stream->open(filename, mode);
        m_filename = filename;
    }
    void open(const std::string &filename, std::ios_base::openmode mode = std::ios_base::out) {
        open(filename.c_str(), mode);
    }
    bool is_open() const { return m_stream && m_stream->is_open(); }
    /* close flushes and closes the file, then produces it; a failed publish sets
     * failbit (last_rc says why). */
    void close() {
        if (!is_open()) return;
        m_stream->close();
        if (m_stream->fail()) return;
        m_rc = m_core.close_sync(m_filename.c_str());
        if (DYAD_IS_ERROR(m_rc)) m_stream->setstate(std::ios_base::failbit);
    }
    std::basic_filebuf<_CharT, _Traits> *rdbuf() const { return m_stream ? m_stream->rdbuf() : nullptr; }
    basic_ofstream &get_stream() { return *m_stream; }
    void init(const dyad_stream_core &core) { m_core = core, m_core.set_initialized(); }
    const dyad_stream_core &core() const { return m_core; }
    dyad_rc_t last_rc() const { return m_rc; }

   private:
    dyad_stream_core m_core;
    std::unique_ptr<basic_ofstream> m_stream;
    std::string m_filename;
    dyad_rc_t m_rc = DYAD_RC_OK;
};

/* basic_fstream_dyad wraps std::basic_fstream: an open for input consumes, the close of
 * a stream opened for output produces. */
template <typename _CharT, typename _Traits = std::char_traits<_CharT>>
class basic_fstream_dyad {
   public:
    using basic_fstream = std::basic_fstream<_CharT, _Traits>;

    basic_fstream_dyad() : m_stream(new basic_fstream()) { m_core.init(); }
    explicit basic_fstream_dyad(const char *filename,
                                std::ios_base::openmode mode = std::ios_base::in | std::ios_base::out)
        : basic_fstream_dyad() {
        open(filename, mode);
    }
    explicit basic_fstream_dyad(const std::string &filename,
                                std::ios_base::openmode mode = std::ios_base::in | std::ios_base::out)
        : basic_fstream_dyad(filename.c_str(), mode) {}
    basic_fstream_dyad(const basic_fstream_dyad &) = delete;
    basic_fstream_dyad(basic_fstream_dyad &&) = default;
    ~basic_fstream_dyad() {
        if (is_open()) close();
    }

    void open(const char *filename, std::ios_base::openmode mode = std::ios_base::in | std::ios_base::out) {
        m_mode = mode;
        if ((mode & std::ios_base::in) && !(mode & std::ios_base::out)) {
            m_rc = m_core.open_sync(filename);
            if (DYAD_IS_ERROR(m_rc)) {
                m_stream->setstate(std::ios_base::failbit);
                return;
            }
        }
        m_stream->open(filename, mode);
        m_filename = filename;
    }
    bool is_open() const { return m_stream && m_stream->is_open(); }
    void close() {
        if (!is_open()) return;
        m_stream->close();
        if ((m_mode & std::ios_base::out) && !m_stream->fail()) {
            m_rc = m_core.close_sync(m_filename.c_str());
            if (DYAD_IS_ERROR(m_rc)) m_stream->setstate(std::ios_base::failbit);
        }
    }
    basic_fstream &get_stream() { return *m_stream; }
    dyad_rc_t last_rc() const { return m_rc; }

   private:
    dyad_stream_core m_core;
    std::unique_ptr<basic_fstream> m_stream;
    std::string m_filename;
    std::ios_base::openmode m_mode = std::ios_base::in;
    dyad_rc_t m_rc = DYAD_RC_OK;
};

using ifstream_dyad = basic_ifstream_dyad<char>;
using wifstream_dyad = basic_ifstream_dyad<wchar_t>;
using ofstream_dyad = basic_ofstream_dyad<char>;
using wofstream_dyad = basic_ofstream_dyad<wchar_t>;
using fstream_dyad = basic_fstream_dyad<char>;
using wfstream_dyad = basic_fstream_dyad<wchar_t>;

}  // namespace dyad

#endif /* DYAD_STREAM_DYAD_STREAM_API_HPP */
