package dev.mailroom.platform;

import static dev.mailroom.testsupport.Proxies.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** {@link DatabaseWrites#probe}: the statements it runs, what it makes of a refusal, and its transaction. */
class DatabaseWritesTest {

    private final List<String> done = new ArrayList<>();
    private SQLException insertFails;
    private boolean autoCommit = true;

    @Test
    void aProbeEmptiesTheTableThenWritesARowAndForgetsARefusalWhenItGoesThrough() throws SQLException {
        DatabaseWrites writes = writes();
        writes.refused(new SQLException("could not extend file \"base/1/2\": No space left on device", "53100"));

        assertThat(writes.probe()).isEmpty();

        assertThat(done).containsExactly("truncate table db_write_probe", "insert into db_write_probe", "close");
        assertThat(writes.refusal()).isEmpty();
    }

    @Test
    void aRefusedProbeNamesTheFullDiskAndIsRemembered() throws SQLException {
        insertFails = new SQLException("ERROR: could not extend file \"base/16384/16999\": No space left on device",
                "53100");

        assertThat(writes().probe()).contains("the disk of its data directory (table files) is full (SQLSTATE 53100)");
        DatabaseWrites writes = writes();
        writes.probe();
        assertThat(writes.refusal()).isPresent();
    }

    @Test
    void aConnectionWithoutAutoCommitIsCommittedOrRolledBackSoTheTablesLockIsNotKept() throws SQLException {
        autoCommit = false;
        writes().probe();
        insertFails = new SQLException("could not extend file", "53100");
        writes().probe();

        assertThat(done).containsSubsequence("insert into db_write_probe", "commit", "close", "rollback", "close");
    }

    @Test
    void aFailureThatIsNoFullDiskIsThrown() {
        insertFails = new SQLException("I/O error", "08006");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> writes().probe()).isSameAs(insertFails);
    }

    private DatabaseWrites writes() {
        DatabaseWrites writes = new DatabaseWrites();
        writes.dataSource = proxy(DataSource.class, (m, a) -> connection());
        return writes;
    }

    private Connection connection() {
        return proxy(Connection.class, (m, a) -> switch (m) {
            case "createStatement" -> proxy(Statement.class, (sm, sa) -> {
                if (sm.equals("executeUpdate")) {
                    done.add((String) sa[0]);
                    return 0;
                }
                return null;
            });
            case "prepareStatement" -> proxy(PreparedStatement.class, (sm, sa) -> {
                if (sm.equals("executeUpdate")) {
                    done.add("insert into db_write_probe");
                    if (insertFails != null) {
                        throw insertFails;
                    }
                    return 1;
                }
                return null;
            });
            case "getAutoCommit" -> autoCommit;
            case "commit", "rollback", "close" -> {
                done.add(m);
                yield null;
            }
            default -> null;
        });
    }
}
