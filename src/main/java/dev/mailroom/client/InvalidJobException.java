package dev.mailroom.client;

import dev.mailroom.contract.RejectReason;
import java.util.List;

/**
 * A job that breaks the contract, refused at the call site with the reason and the violations the server would
 * have dead-lettered it for. Each violation starts with the JSON path of the field that is wrong
 * ({@code /to/0: is not a mailbox ...}).
 */
public final class InvalidJobException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final RejectReason reason;
    private final List<String> violations;

    InvalidJobException(RejectReason reason, List<String> violations) {
        super(reason + ": " + String.join("; ", violations));
        this.reason = reason;
        this.violations = List.copyOf(violations);
    }

    /** The server's reason code for the same job ({@code schema_violation}, {@code too_large}, ...). */
    public RejectReason reason() {
        return reason;
    }

    /** What is wrong, one entry per field ({@code <json-pointer>: <what>}), sorted. */
    public List<String> violations() {
        return violations;
    }
}
