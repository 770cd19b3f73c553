package dev.mailroom.platform;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Whether the database takes writes. A database whose disk is full still answers reads (and the health check's
 * connection test), yet refuses every write that needs new space ({@link DatabaseFailures#outOfSpace}): this node
 * remembers such a refusal, seen by a delivery or by {@link #probe}, until a write that needs new space goes through
 * again. The health check names the full disk meanwhile, and a line the database stopped starts again only after such
 * a write ({@code LineProbe}).
 */
@ApplicationScoped
public class DatabaseWrites {

    @Resource(lookup = "java:comp/DefaultDataSource")
    DataSource dataSource;

    private final AtomicReference<String> refusal = new AtomicReference<>();
    private final SecureRandom random = new SecureRandom();

    /** The full disk, when {@code failure} is the database refusing a write for want of space (then remembered). */
    public Optional<String> refused(Throwable failure) {
        Optional<String> disk = DatabaseFailures.outOfSpace(failure);
        disk.ifPresent(refusal::set);
        return disk;
    }

    /** The full disk of the last refusal, until a write went through again; empty when none is known. */
    public Optional<String> refusal() {
        return Optional.ofNullable(refusal.get());
    }

    /**
     * Whether the database takes a write that needs new space: empty, and the remembered refusal forgotten, when it
     * does; the full disk when it refused. A database that does not answer throws.
     */
    public Optional<String> probe() throws SQLException {
        Optional<String> disk = writeTest();
        refusal.set(disk.orElse(null));
        return disk;
    }

    /**
     * Empties the probe table and writes a row into it (each its own transaction: the caller runs outside one). The
     * emptied table has no page left (PostgreSQL's {@code TRUNCATE} gives it a new, empty file), so the row needs new
     * space, as the send path's inserts do; a row into a table with room, or a deleted row's room, would go through on
     * a full disk.
     */
    protected Optional<String> writeTest() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            try (Statement truncate = c.createStatement(); PreparedStatement insert = c.prepareStatement(
                    "insert into db_write_probe (id, written_at) values (?, current_timestamp)")) {
                truncate.executeUpdate("truncate table db_write_probe");
                insert.setLong(1, random.nextLong()); // another node's probe may write beside this one
                insert.executeUpdate();
                if (!c.getAutoCommit()) {
                    c.commit(); // a pool handing out connections without auto-commit must not keep the table's lock
                }
                return Optional.empty();
            } catch (SQLException e) {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
                Optional<String> disk = DatabaseFailures.outOfSpace(e);
                if (disk.isPresent()) {
                    return disk;
                }
                throw e;
            }
        }
    }

}
