#include "metaroce-atomic-file.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <streambuf>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ns3
{

namespace
{

/**
 * The temporary files that exist, for the signal handler: fixed storage it may read without
 * locking or allocating. A slot is filled before it is marked used and unmarked before it is
 * reused; more files at once than slots are still removed by their destructors, not on a
 * signal.
 */
struct Slot
{
    volatile std::sig_atomic_t used{0};
    char path[4096]{};
};

std::array<Slot, 64> g_slots;
std::mutex g_mutex;             ///< guards the slots' filling and the handlers' installation
std::size_t g_registered{0};    ///< temporary files registered in g_slots
std::atomic<unsigned> g_serial; ///< makes temporary names unique within the process
volatile std::sig_atomic_t g_stopped{0}; ///< the signal that removed the files, 0: none

constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, kSignals.size()> g_previous;
std::array<bool, kSignals.size()> g_installed{};

/// Removes every registered temporary file, then lets the signal do what it did before.
void
OnSignal(int signal)
{
    for (Slot& slot : g_slots)
    {
        if (slot.used)
        {
            unlink(slot.path); // async-signal-safe
        }
    }
    g_stopped = signal;
    for (std::size_t i = 0; i < kSignals.size(); ++i)
    {
        if (kSignals[i] == signal && g_installed[i])
        {
            sigaction(signal, &g_previous[i], nullptr);
        }
    }
    raise(signal); // delivered once this handler returns, to the previous disposition
}

/// Installs OnSignal for the signals not ignored (g_mutex held).
void
InstallHandlers()
{
    for (std::size_t i = 0; i < kSignals.size(); ++i)
    {
        struct sigaction previous;
        if (sigaction(kSignals[i], nullptr, &previous) != 0 || previous.sa_handler == SIG_IGN)
        {
            continue; // a signal the process ignores (nohup) stays ignored
        }
        struct sigaction action;
        std::memset(&action, 0, sizeof action);
        action.sa_handler = &OnSignal;
        sigemptyset(&action.sa_mask);
        g_previous[i] = previous;
        g_installed[i] = sigaction(kSignals[i], &action, nullptr) == 0;
    }
}

/// Puts the previous handlers back (g_mutex held).
void
RestoreHandlers()
{
    for (std::size_t i = 0; i < kSignals.size(); ++i)
    {
        if (g_installed[i])
        {
            sigaction(kSignals[i], &g_previous[i], nullptr);
            g_installed[i] = false;
        }
    }
}

/// Registers `path` for removal on a signal; the slot's index, or -1 when none is free.
int
Register(const std::string& path)
{
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_registered++ == 0)
    {
        InstallHandlers();
    }
    for (std::size_t i = 0; i < g_slots.size(); ++i)
    {
        if (!g_slots[i].used && path.size() < sizeof g_slots[i].path)
        {
            std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
            g_slots[i].used = 1;
            return static_cast<int>(i);
        }
    }
    return -1;
}

void
Unregister(int slot)
{
    std::lock_guard<std::mutex> lock(g_mutex);
    if (slot >= 0)
    {
        g_slots[slot].used = 0;
    }
    if (--g_registered == 0)
    {
        RestoreHandlers();
    }
}

std::string
Reason(int error)
{
    if (g_stopped != 0)
    {
        return "stopped by signal " + std::to_string(g_stopped) + " while writing";
    }
    return std::strerror(error);
}

} // namespace

/// A stream buffer over a file descriptor that remembers the first write error.
class MetaRoceAtomicFile::Buffer : public std::streambuf
{
  public:
    Buffer(int fd, int slot)
        : m_fd(fd)
        , m_slot(slot)
        , m_data(1 << 16)
    {
        setp(m_data.data(), m_data.data() + m_data.size());
    }

    ~Buffer() override
    {
        if (m_fd >= 0)
        {
            close(m_fd);
        }
        Release();
    }

    /// Takes the temporary name out of the signal handler's list (once).
    void Release()
    {
        if (!m_released)
        {
            Unregister(m_slot);
            m_released = true;
        }
    }

    /// Writes what is buffered; false (and the error kept) on failure.
    bool Drain()
    {
        const char* p = pbase();
        while (m_error == 0 && p < pptr())
        {
            const ssize_t n = write(m_fd, p, static_cast<std::size_t>(pptr() - p));
            if (n < 0 && errno != EINTR)
            {
                m_error = errno;
            }
            p += n > 0 ? n : 0;
        }
        setp(m_data.data(), m_data.data() + m_data.size());
        return m_error == 0;
    }

    /// Drains, syncs and closes the descriptor; false (and the error kept) on failure.
    bool Finish()
    {
        if (Drain() && fsync(m_fd) != 0 && errno != EINVAL)
        {
            m_error = errno; // EINVAL: a file that cannot be synced (a pipe, /dev/null)
        }
        if (close(m_fd) != 0 && m_error == 0)
        {
            m_error = errno;
        }
        m_fd = -1;
        return m_error == 0;
    }

    int GetError() const
    {
        return m_error;
    }

  protected:
    int_type overflow(int_type ch) override
    {
        if (!Drain())
        {
            return traits_type::eof();
        }
        if (!traits_type::eq_int_type(ch, traits_type::eof()))
        {
            *pptr() = traits_type::to_char_type(ch);
            pbump(1);
        }
        return traits_type::not_eof(ch);
    }

    int sync() override
    {
        return Drain() ? 0 : -1;
    }

  private:
    int m_fd;
    int m_slot;
    bool m_released{false};
    int m_error{0};
    std::vector<char> m_data;
};

MetaRoceAtomicFile::MetaRoceAtomicFile(const std::string& path)
    : m_flow(path)
{
    struct stat existing;
    if (path.empty() || path.back() == '/' ||
        (stat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)))
    {
        Fail(EISDIR);
    }
    m_temporary = path + ".partial-" + std::to_string(getpid()) + "-" + std::to_string(g_serial++);
    const int slot = Register(m_temporary);
    // 0666 less the umask, as a plain std::ofstream would create the file.
    const int fd = open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
    {
        const int error = errno;
        Unregister(slot);
        Fail(error);
    }
    m_buffer = std::make_unique<Buffer>(fd, slot);
    m_stream = std::make_unique<std::ostream>(m_buffer.get());
}

MetaRoceAtomicFile::~MetaRoceAtomicFile()
{
    if (!m_published && m_buffer)
    {
        unlink(m_temporary.c_str());
    }
    m_stream.reset();
    m_buffer.reset(); // closes the descriptor if still open, unregisters the name
}

std::ostream&
MetaRoceAtomicFile::Stream()
{
    return *m_stream;
}

void
MetaRoceAtomicFile::Close()
{
    if (m_closed)
    {
        return;
    }
    m_closed = true;
    m_stream->flush();
    if (!m_buffer->Finish() || g_stopped != 0)
    {
        Fail(m_buffer->GetError());
    }
    if (!*m_stream)
    {
        Fail(EIO); // a formatting failure the buffer did not see
    }
}

void
MetaRoceAtomicFile::Publish()
{
    Close();
    if (m_published)
    {
        return;
    }
    if (g_stopped != 0 || rename(m_temporary.c_str(), m_flow.c_str()) != 0)
    {
        Fail(errno);
    }
    m_published = true;
    m_buffer->Release();
    // The rename itself on disk: sync the directory (best effort: not every file system can).
    const auto slash = m_flow.rfind('/');
    const std::string dir =
        slash == std::string::npos ? "." : (slash == 0 ? "/" : m_flow.substr(0, slash));
    const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0)
    {
        fsync(fd);
        close(fd);
    }
}

void
MetaRoceAtomicFile::Commit()
{
    Close();
    Publish();
}

const std::string&
MetaRoceAtomicFile::GetPath() const
{
    return m_flow;
}

const std::string&
MetaRoceAtomicFile::GetTemporaryPath() const
{
    return m_temporary;
}

void
MetaRoceAtomicFile::Remove(const std::string& path)
{
    if (unlink(path.c_str()) != 0 && errno != ENOENT)
    {
        throw std::runtime_error("cannot write '" + path + "': " + Reason(errno));
    }
}

void
MetaRoceAtomicFile::Write(const std::string& path, const std::string& text)
{
    MetaRoceAtomicFile file(path);
    file.Stream() << text;
    file.Commit();
}

void
MetaRoceFlushStandardOutput()
{
    std::cout.flush();
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    if (!std::cout || !flushed || std::ferror(stdout))
    {
        throw std::runtime_error(std::string("cannot write standard output") +
                                 (errno != 0 ? std::string(": ") + std::strerror(errno) : ""));
    }
}

void
MetaRoceAtomicFile::Fail(int error) const
{
    throw std::runtime_error("cannot write '" + m_flow + "': " + Reason(error));
}

} // namespace ns3
