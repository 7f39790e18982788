/*
 * MetaRoceAtomicFile: a file that appears under its name only when it is complete.
 *
 * The text goes to a temporary file in the same directory, "<path>.partial-<pid>-<n>" (never a
 * name a reader of results takes for a result: it does not end in .json or .csv); Commit()
 * flushes it, syncs it to disk, closes it and renames it to `path`, so a reader sees either the
 * previous file or the whole new one. Every write, flush, sync, close and rename is checked: a
 * failure (a full disk, a read-only directory, a path whose parent is a file) throws
 * std::runtime_error "cannot write '<path>': <reason>". A file that is never committed (an
 * exception, an early return) is removed by the destructor, and while any temporary file
 * exists, SIGINT, SIGTERM and SIGHUP remove them all before the signal takes its usual course,
 * so a stopped run leaves nothing that looks complete.
 *
 * Several files that belong together are closed first and renamed after, the one that says the
 * set is complete last (MetaRoceExperimentResults::Write: the CSV files, then the JSON):
 *
 *   MetaRoceAtomicFile csv(prefix + "-flows.csv");
 *   MetaRoceAtomicFile json(prefix + ".json");
 *   csv.Stream() << ...;  json.Stream() << ...;
 *   csv.Close(); json.Close();            // every byte on disk, or an exception
 *   MetaRoceAtomicFile::Remove(prefix + ".json");   // an older run's JSON goes first
 *   csv.Publish(); json.Publish();        // renamed in this order
 *
 * It uses nothing of ns-3 (POSIX and the standard library), so the compliance runner, which
 * may be built without ns-3, writes its report with it too. MetaRoceFlushStandardOutput() is
 * the same promise for what a program prints: its table redirected to a full disk is an error.
 */
#ifndef METAROCE_ATOMIC_FILE_H
#define METAROCE_ATOMIC_FILE_H

#include <memory>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief A file written under a temporary name and renamed to its own when complete.
 */
class MetaRoceAtomicFile
{
  public:
    /// Creates the temporary file beside `path`; throws std::runtime_error naming `path`.
    explicit MetaRoceAtomicFile(const std::string& path);
    /// Removes the temporary file unless it was published.
    ~MetaRoceAtomicFile();

    MetaRoceAtomicFile(const MetaRoceAtomicFile&) = delete;
    MetaRoceAtomicFile& operator=(const MetaRoceAtomicFile&) = delete;

    /// Where the text goes (the default format of a std::ostream).
    std::ostream& Stream();

    /// Flushes, syncs and closes the temporary file; throws naming the path on any failure.
    void Close();

    /// Renames the closed temporary file to the path (Close() first if still open); throws
    /// naming the path on failure.
    void Publish();

    /// Close() then Publish().
    void Commit();

    /// The final path.
    const std::string& GetPath() const;

    /// The temporary file's path.
    const std::string& GetTemporaryPath() const;

    /**
     * Removes the file at `path` if there is one (an older run's), so that a set of files
     * published after it is never read beside it; throws naming the path on failure.
     */
    static void Remove(const std::string& path);

    /// Writes `text` to `path` atomically (a single file: construct, write, Commit()).
    static void Write(const std::string& path, const std::string& text);

  private:
    class Buffer;

    [[noreturn]] void Fail(int error) const;

    std::string m_flow;
    std::string m_temporary;
    std::unique_ptr<Buffer> m_buffer;
    std::unique_ptr<std::ostream> m_stream;
    bool m_closed{false};
    bool m_published{false};
};

/**
 * \ingroup metaroce
 * Flushes std::cout and stdout; throws std::runtime_error "cannot write standard output" when
 * some of what the program printed could not be written (stdout redirected to a full disk),
 * which would otherwise end the program with status 0 and a short file. Programs call it
 * before they exit.
 */
void MetaRoceFlushStandardOutput();

} // namespace ns3

#endif // METAROCE_ATOMIC_FILE_H
