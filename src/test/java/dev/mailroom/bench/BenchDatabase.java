package dev.mailroom.bench;

import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.it.support.WildFlyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/** What the database benches (dead-letter queries, job search) share: their work directory, the server on their PostgreSQL. */
final class BenchDatabase {

    private BenchDatabase() {
    }

    /** An empty work directory (what a previous run left is deleted). */
    static Path freshWorkDir(Path work) throws IOException {
        if (Files.exists(work)) {
            try (var paths = Files.walk(work)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        return Files.createDirectories(work);
    }

    /** Mailroom on WildFly ({@code standalone-mailroom.xml}, the provisioned war) pointed at {@code pg}; not started yet. */
    static WildFlyServer server(PostgresServer pg, Path home, Path work, int offset, Duration bootTimeout) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MAILROOM_DB_URL", pg.jdbcUrl());
        env.put("MAILROOM_DB_USER", pg.user());
        env.put("MAILROOM_DB_PASSWORD", pg.password());
        env.put("MAILROOM_DB_DRIVER", "postgresql");
        return WildFlyServer.builder(home)
                .config("standalone-mailroom.xml")
                .portOffset(offset)
                .baseDir(work.resolve("server"))
                .contextRoot("/mailroom")
                .readinessUrl("http://127.0.0.1:" + (8080 + offset) + "/mailroom/api/v1/health")
                .bootTimeout(bootTimeout)
                .environment(env)
                .build();
    }

    /** The first column of the first row. */
    static String scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getString(1);
        }
    }
}
