package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class HealthProbesTest {

    private static final String LEAK = "FATAL: password authentication failed for user \"mailroom\" at 10.1.2.3";

    @Test
    void whatIsDownIsNamedWithoutTheExceptionsText() {
        HealthProbes probes = probes(failingDataSource(), failingBroker());
        assertThat(probes.probe()).containsOnlyKeys("database", "broker");
        assertThat(probes.probe().get("database")).startsWith("DOWN: the database").doesNotContain("password")
                .doesNotContain("10.1.2.3");
        assertThat(probes.probe().get("broker")).startsWith("DOWN: the broker").contains("mail.send")
                .doesNotContain("10.1.2.3");
    }

    @Test
    void aBrokerWithFiguresIsUp() {
        assertThat(probes(failingDataSource(), answering(java.util.Optional.empty())).broker()).isEqualTo(HealthProbes.UP);
    }

    @Test
    void aBrokerWhoseStoreDiskIsFullIsDownAndNamesTheDisk() {
        BrokerQueues full = answering(java.util.Optional.of(
                new BrokerQueues.DiskFigures("primary", 0.97, 0.90, "/srv/primary/data/journal")));
        assertThat(probes(failingDataSource(), full).broker()).startsWith("DOWN: the disk of broker primary's store")
                .contains("/srv/primary/data/journal", "97%", "90%");
    }

    @Test
    void aDatabaseThatRefusedAWriteForAFullDiskIsDownAndNamesTheDiskUntilAWriteGoesThrough() throws SQLException {
        boolean[] full = {true};
        HealthProbes probes = probes(answeringDataSource(), answering(java.util.Optional.empty()));
        probes.writes = new DatabaseWrites() {
            @Override
            protected java.util.Optional<String> writeTest() {
                return full[0] ? java.util.Optional.of("its disk is full (SQLSTATE 53100)") : java.util.Optional.empty();
            }
        };
        assertThat(probes.database()).isEqualTo(HealthProbes.UP);
        probes.writes.refused(new jakarta.persistence.PersistenceException(new SQLException(
                "ERROR: could not extend file \"pg_wal/xlogtemp.1\": No space left on device", "53100")));
        assertThat(probes.database()).isEqualTo("DOWN: the database answers but refuses writes: the disk of its WAL"
                + " (pg_wal) is full (SQLSTATE 53100)");
        probes.writes.probe();
        assertThat(probes.database()).startsWith("DOWN: the database answers but refuses writes");
        full[0] = false;
        probes.writes.probe();
        assertThat(probes.database()).isEqualTo(HealthProbes.UP);
    }

    private static HealthProbes probes(DataSource ds, BrokerQueues broker) {
        HealthProbes probes = new HealthProbes();
        probes.dataSource = ds;
        probes.broker = broker;
        probes.writes = new DatabaseWrites();
        probes.config = new MailroomConfig() {
            @Override
            public List<String> queues() {
                return List.of("mail.send");
            }
        };
        return probes;
    }

    /** A broker with figures for every queue, and these of its disk. */
    private static BrokerQueues answering(java.util.Optional<BrokerQueues.DiskFigures> disk) {
        return new BrokerQueues() {
            @Override
            public QueueFigures figures(String queue) {
                return new QueueFigures(queue, 0, 0, 0, 1);
            }

            @Override
            public java.util.Optional<DiskFigures> disk() {
                return disk;
            }
        };
    }

    private static BrokerQueues failingBroker() {
        return new BrokerQueues() {
            @Override
            public QueueFigures figures(String queue) {
                throw new BrokerUnavailableException(LEAK, new RuntimeException(LEAK));
            }
        };
    }

    /** A database whose connections pass their test. */
    private static DataSource answeringDataSource() {
        return (DataSource) Proxy.newProxyInstance(HealthProbesTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (ds, m, a) -> Proxy.newProxyInstance(
                        HealthProbesTest.class.getClassLoader(), new Class<?>[] {java.sql.Connection.class},
                        (c, cm, ca) -> "isValid".equals(cm.getName()) ? (Object) true : null));
    }

    private static DataSource failingDataSource() {
        return (DataSource) Proxy.newProxyInstance(HealthProbesTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        throw new SQLException(LEAK);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

}
