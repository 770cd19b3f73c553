package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link DatabaseFailures#outOfSpace}: which exceptions mean "the database refuses writes, a disk is full", and which disk. */
class DatabaseFailuresOutOfSpaceTest {

    static Stream<Arguments> rows() {
        SQLException chained = new SQLException("batch failed", "42000");
        chained.setNextException(new SQLException("ERROR: could not extend file \"base/16384/16500\": No space left on"
                + " device", "53100"));
        return Stream.of(
                Arguments.of("a table file that cannot grow, under a PersistenceException", new PersistenceException(
                        "could not execute statement", new SQLException("ERROR: could not extend file"
                        + " \"base/16384/16500\": No space left on device\n  Hint: Check free disk space.", "53100")),
                        Optional.of("the disk of its data directory (table files) is full (SQLSTATE 53100)")),
                Arguments.of("a WAL segment that cannot be made", new SQLException("ERROR: could not write to file"
                        + " \"pg_wal/xlogtemp.23505\": No space left on device", "53100"),
                        Optional.of("the disk of its WAL (pg_wal) is full (SQLSTATE 53100)")),
                Arguments.of("a sort's temporary file", new SQLException("ERROR: could not write block 12 of temporary"
                        + " file \"base/pgsql_tmp/pgsql_tmp123.0\": No space left on device", "53100"),
                        Optional.of("the disk of its temporary files (pgsql_tmp) is full (SQLSTATE 53100)")),
                Arguments.of("a tablespace", new SQLException("ERROR: could not extend file"
                        + " \"pg_tblspc/16390/PG_17_202406281/16384/16500\": No space left on device", "53100"),
                        Optional.of("the disk of a tablespace (pg_tblspc) is full (SQLSTATE 53100)")),
                Arguments.of("a disk-full refusal without a file", new SQLException("disk full", "53100"),
                        Optional.of("its disk is full (SQLSTATE 53100)")),
                Arguments.of("H2's file", new PersistenceException(new SQLException("No disk space available", "90100")),
                        Optional.of("the disk of its database file is full (SQLSTATE 90100)")),
                Arguments.of("in the next-exception chain", chained,
                        Optional.of("the disk of its data directory (table files) is full (SQLSTATE 53100)")),
                Arguments.of("out of memory is not a full disk", new SQLException("out of memory", "53200"), Optional.empty()),
                Arguments.of("a lost connection is an outage, not a full disk", new SQLException("I/O error", "08006"),
                        Optional.empty()),
                Arguments.of("a bug is not a full disk", new IllegalStateException("no"), Optional.empty()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void classifies(String name, Throwable t, Optional<String> disk) {
        assertThat(DatabaseFailures.outOfSpace(t)).isEqualTo(disk);
    }
}
