package dev.mailroom.platform.liberty;

import dev.mailroom.platform.ConsumerSwitch;
import dev.mailroom.platform.MdbQueues;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Open Liberty's MDB delivery switch: its {@code ServerEndpointControl} MBean pauses and resumes a message
 * endpoint named {@code <application>#<module>#<bean>} (what {@code server pause --target=...} does). Which MDB
 * consumes which queue is the deployment's own knowledge ({@link MdbQueues}): Liberty keeps it in its activation
 * specs (server-config/liberty/server.xml).
 */
final class LibertyConsumerSwitch implements ConsumerSwitch {

    static final String CONTROL = "WebSphere:feature=kernel,name=ServerEndpointControl";

    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    private final MdbQueues mdbQueues;
    private volatile String prefix;

    LibertyConsumerSwitch(MdbQueues mdbQueues) {
        this.mdbQueues = mdbQueues;
    }

    @Override
    public Map<String, List<String>> mdbsByQueue() {
        return mdbQueues.mdbsByQueue();
    }

    @Override
    public boolean deliveryActive(String mdb) {
        try {
            return !Boolean.TRUE.equals(mbeans.invoke(control(), "isPaused", new Object[] {endpoint(mdb)},
                    new String[] {String.class.getName()}));
        } catch (JMException e) {
            throw new IllegalStateException("could not read whether " + mdb + " delivers: " + e, e);
        }
    }

    @Override
    public void deliveryActive(String mdb, boolean active) {
        try {
            mbeans.invoke(control(), active ? "resume" : "pause", new Object[] {endpoint(mdb)},
                    new String[] {String.class.getName()});
        } catch (JMException e) {
            throw new IllegalStateException("could not " + (active ? "resume" : "pause") + " " + mdb + ": " + e, e);
        }
    }

    private static ObjectName control() throws JMException {
        return new ObjectName(CONTROL);
    }

    /** {@code <application>#<module>#<bean>}, the application's and module's names as the server gave them. */
    private String endpoint(String mdb) {
        String p = prefix;
        if (p == null) {
            try {
                InitialContext ctx = new InitialContext();
                p = ctx.lookup("java:app/AppName") + "#" + ctx.lookup("java:module/ModuleName") + ".war#";
            } catch (NamingException e) {
                throw new IllegalStateException("could not read this application's name: " + e, e);
            }
            prefix = p;
        }
        return p + mdb;
    }
}
