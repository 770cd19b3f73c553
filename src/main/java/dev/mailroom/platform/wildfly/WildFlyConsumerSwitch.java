package dev.mailroom.platform.wildfly;

import dev.mailroom.platform.ConsumerSwitch;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * WildFly's MDB delivery switch, through its management model as exposed over JMX
 * ({@code jboss.as:deployment=mailroom.war,subsystem=ejb3,message-driven-bean=<name>}: operations
 * {@code stopDelivery} / {@code startDelivery}, attribute {@code deliveryActive}). Which MDBs consume a queue is
 * read from their activation config ({@link ConsumerMap}, WEB-INF/jboss-ejb3.xml).
 */
final class WildFlyConsumerSwitch implements ConsumerSwitch {

    private static final String MDB_PATTERN = "jboss.as:subsystem=ejb3,message-driven-bean=*,*";

    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    /** The management name of each of this deployment's MDBs, as last found. */
    private final Map<String, ObjectName> names = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public Map<String, List<String>> mdbsByQueue() {
        Map<String, Map<String, String>> configs = new HashMap<>();
        try {
            for (ObjectName name : mbeans.queryNames(new ObjectName(MDB_PATTERN), null)) {
                if (!ours(String.valueOf(mbeans.getAttribute(name, "componentClassName")))) {
                    continue;
                }
                String mdb = name.getKeyProperty("message-driven-bean");
                configs.put(mdb, activationConfig(mbeans.getAttribute(name, "activationConfig")));
                names.put(mdb, name);
            }
        } catch (JMException e) {
            throw new IllegalStateException("could not read the message-driven beans from the server: " + e, e);
        }
        return ConsumerMap.byQueue(configs);
    }

    @Override
    public boolean deliveryActive(String mdb) {
        try {
            return Boolean.TRUE.equals(mbeans.getAttribute(name(mdb), "deliveryActive"));
        } catch (JMException e) {
            throw new IllegalStateException("could not read whether " + mdb + " delivers: " + e, e);
        }
    }

    @Override
    public void deliveryActive(String mdb, boolean active) {
        try {
            mbeans.invoke(name(mdb), active ? "startDelivery" : "stopDelivery", new Object[0], new String[0]);
        } catch (JMException e) {
            throw new IllegalStateException("could not " + (active ? "start" : "stop") + " delivery to " + mdb
                    + ": " + e, e);
        }
    }

    private ObjectName name(String mdb) {
        ObjectName name = names.get(mdb);
        if (name == null) {
            mdbsByQueue();
            name = names.get(mdb);
        }
        if (name == null) {
            throw new IllegalStateException("no message-driven bean " + mdb + " of this deployment on this server");
        }
        return name;
    }

    private boolean ours(String className) {
        ClassLoader loader = WildFlyConsumerSwitch.class.getClassLoader();
        try {
            return Class.forName(className, false, loader).getClassLoader() == loader;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static Map<String, String> activationConfig(Object value) {
        Map<String, String> out = new HashMap<>();
        if (value instanceof TabularData table) {
            for (Object row : table.values()) {
                if (row instanceof CompositeData entry && entry.containsKey("key") && entry.containsKey("value")) {
                    out.put(String.valueOf(entry.get("key")), String.valueOf(entry.get("value")));
                }
            }
        }
        return out;
    }
}
