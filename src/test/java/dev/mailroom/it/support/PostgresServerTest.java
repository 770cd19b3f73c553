package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Smoke test of the integration-test harness: a real PostgreSQL from the zonky binaries artifact starts, the
 * {@code mailroom} role and database work over JDBC on loopback, and nothing is left listening after stop.
 */
class PostgresServerTest {

    @Test
    @Timeout(120)
    void startsCreatesMailroomDatabaseAndStopsCleanly() throws Exception {
        PostgresServer pg = PostgresServer.start(ItEnvironment.workDir());
        int port = pg.port();
        try {
            assertThat(pg.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + port + "/mailroom");
            assertThat(pg.user()).isEqualTo("mailroom");
            assertThat(pg.password()).isEqualTo("mailroom");
            assertThat(PostgresServer.isListening(port)).isTrue();

            try (Connection c = pg.connect(); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery(
                        "select current_user, current_database(), version(), pg_encoding_to_char(encoding) "
                                + "from pg_database where datname = current_database()")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("mailroom");
                    assertThat(rs.getString(2)).isEqualTo("mailroom");
                    assertThat(rs.getString(3)).startsWith("PostgreSQL 17.");
                    assertThat(rs.getString(4)).isEqualTo("UTF8");
                }
                s.execute("create table smoke (id bigint primary key, body text not null)");
                try (PreparedStatement ins = c.prepareStatement("insert into smoke (id, body) values (?, ?)")) {
                    for (int i = 1; i <= 3; i++) {
                        ins.setLong(1, i);
                        ins.setString(2, "héllo " + i + " ✉");
                        ins.addBatch();
                    }
                    ins.executeBatch();
                }
                List<String> bodies = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("select body from smoke order by id")) {
                    while (rs.next()) {
                        bodies.add(rs.getString(1));
                    }
                }
                assertThat(bodies).containsExactly("héllo 1 ✉", "héllo 2 ✉", "héllo 3 ✉");
            }
        } finally {
            pg.stop();
        }
        assertThat(PostgresServer.isListening(port)).as("port %d closed after stop", port).isFalse();
        assertThat(pg.isRunning()).isFalse();
        assertThat(Files.exists(pg.logFile())).isTrue();
        pg.stop(); // idempotent
    }
}
