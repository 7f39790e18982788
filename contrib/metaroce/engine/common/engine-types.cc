#include "engine-types.h"

namespace metaroce
{

const char*
OpcodeName(Opcode op)
{
    switch (op)
    {
    case Opcode::Write:
        return "WRITE";
    case Opcode::Send:
        return "SEND";
    case Opcode::Recv:
        return "RECV";
    }
    return "?";
}

const char*
CompletionStatusName(CompletionStatus status)
{
    switch (status)
    {
    case CompletionStatus::Success:
        return "success";
    case CompletionStatus::RemoteAccessError:
        return "remote-access-error";
    case CompletionStatus::RetryExceeded:
        return "retry-exceeded";
    case CompletionStatus::LocalLengthError:
        return "local-length-error";
    case CompletionStatus::Flushed:
        return "flushed";
    }
    return "?";
}

} // namespace metaroce
