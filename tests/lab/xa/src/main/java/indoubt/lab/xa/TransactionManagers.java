package indoubt.lab.xa;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.arjuna.common.arjPropertyManager;
import com.arjuna.ats.arjuna.common.recoveryPropertyManager;
import com.arjuna.ats.arjuna.recovery.RecoveryManager;
import com.arjuna.ats.arjuna.recovery.RecoveryModule;
import com.arjuna.ats.internal.arjuna.objectstore.jdbc.JDBCStore;
import com.arjuna.ats.internal.jta.recovery.arjunacore.XARecoveryModule;
import com.arjuna.ats.jta.common.jtaPropertyManager;
import com.arjuna.ats.jta.recovery.XAResourceRecoveryHelper;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import com.atomikos.datasource.xa.XATransactionalResource;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.jta.UserTransactionManager;
import com.atomikos.jdbc.AtomikosDataSourceBean;
import jakarta.transaction.TransactionManager;
import java.io.File;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import javax.sql.XAConnection;
import javax.transaction.xa.XAResource;

/** Narayana and Atomikos behind the few calls the harness needs. */
final class TransactionManagers {
    private TransactionManagers() { }

    interface Driver {
        void begin() throws Exception;

        /** A connection to database {@code i} whose work belongs to the transaction. */
        Connection enlisted(int i) throws Exception;

        void enlist(XAResource resource) throws Exception;

        void commit() throws Exception;

        /** The TM's own recovery over the same log and databases, run to completion. */
        void recover() throws Exception;
    }

    static Driver of(Orphans.Settings s) throws Exception {
        return switch (s.tm) {
            case "narayana" -> new Narayana(s);
            case "atomikos" -> new Atomikos(s);
            default -> throw new IllegalArgumentException("tm must be narayana or atomikos");
        };
    }

    /** Narayana 7 with its file ObjectStore (ShadowNoFileLockStore) or its JDBC store. */
    static final class Narayana implements Driver {
        private final Orphans.Settings s;
        private final List<XAConnection> connections = new ArrayList<>();
        private TransactionManager tm;

        Narayana(Orphans.Settings s) throws Exception {
            this.s = s;
            arjPropertyManager.getCoreEnvironmentBean().setNodeIdentifier(s.node);
            // The communication and state stores stay files; the action store (where the
            // AtomicAction record of a commit decision lives) is the one under test.
            for (String name : new String[] {"communicationStore", "stateStore"}) {
                BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, name)
                    .setObjectStoreDir(s.dir);
            }
            ObjectStoreEnvironmentBean actions =
                BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class);
            actions.setObjectStoreDir(s.dir);
            if (s.store.equals("jdbc")) {
                actions.setObjectStoreType(JDBCStore.class.getName());
                actions.setJdbcAccess(
                    "com.arjuna.ats.internal.arjuna.objectstore.jdbc.accessors.DynamicDataSourceJDBCAccess"
                        + ";ClassName=org.postgresql.ds.PGSimpleDataSource;URL=" + s.storeUrl
                        + ";User=" + s.storeUser + ";Password=" + s.storePassword);
            } else if (!s.store.equals("file")) {
                throw new IllegalArgumentException("store must be file or jdbc");
            }
            jtaPropertyManager.getJTAEnvironmentBean().setXaRecoveryNodes(List.of(s.node));
            // An unlogged branch is rolled back once it has been seen for this long; the
            // default waits out the transaction timeout, the harness's scans do not.
            jtaPropertyManager.getJTAEnvironmentBean().setOrphanSafetyInterval(0);
            // No listener on the recovery manager's fixed port: tests run side by side.
            recoveryPropertyManager.getRecoveryEnvironmentBean().setRecoveryListener(false);
            // Scans a second apart, not the default ten: the harness runs two in a row.
            recoveryPropertyManager.getRecoveryEnvironmentBean().setRecoveryBackoffPeriod(1);
        }

        @Override
        public void begin() throws Exception {
            tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
            tm.begin();
        }

        @Override
        public Connection enlisted(int i) throws Exception {
            XAConnection xa = Orphans.dataSource(s.databases.get(i), s).getXAConnection();
            connections.add(xa);
            tm.getTransaction().enlistResource(xa.getXAResource());
            return xa.getConnection();
        }

        @Override
        public void enlist(XAResource resource) throws Exception {
            tm.getTransaction().enlistResource(resource);
        }

        @Override
        public void commit() throws Exception {
            tm.commit();
        }

        @Override
        public void recover() throws Exception {
            RecoveryManager manager = RecoveryManager.manager(RecoveryManager.DIRECT_MANAGEMENT);
            List<XAResource> resources = new ArrayList<>();
            for (String url : s.databases) {
                resources.add(Orphans.dataSource(url, s).getXAConnection().getXAResource());
            }
            for (RecoveryModule module : manager.getModules()) {
                if (module instanceof XARecoveryModule xa) {
                    xa.addXAResourceRecoveryHelper(new XAResourceRecoveryHelper() {
                        @Override public boolean initialise(String p) { return true; }
                        @Override public XAResource[] getXAResources() {
                            return resources.toArray(new XAResource[0]);
                        }
                    });
                }
            }
            // A logged decision is replayed in the first scan; an unlogged branch is
            // rolled back only in a later one.
            manager.scan();
            manager.scan();
            manager.terminate();
        }
    }

    /** Atomikos 6 with its file log (tmlog*.log), resources as AtomikosDataSourceBean. */
    static final class Atomikos implements Driver {
        private final Orphans.Settings s;
        private final List<AtomikosDataSourceBean> beans = new ArrayList<>();
        private UserTransactionManager utm;

        Atomikos(Orphans.Settings s) throws Exception {
            this.s = s;
            new File(s.dir).mkdirs();
            System.setProperty("com.atomikos.icatch.log_base_dir", s.dir);
            System.setProperty("com.atomikos.icatch.tm_unique_name", s.node);
            System.setProperty("com.atomikos.icatch.registered", "true");
            System.setProperty("com.atomikos.icatch.threaded_2pc", "false");
        }

        private void start() throws Exception {
            for (int i = 0; i < s.databases.size(); i++) {
                AtomikosDataSourceBean bean = new AtomikosDataSourceBean();
                bean.setUniqueResourceName(s.node + "-db" + i);
                bean.setXaDataSource(Orphans.dataSource(s.databases.get(i), s));
                bean.setMinPoolSize(1);
                bean.setMaxPoolSize(2);
                bean.init();
                beans.add(bean);
            }
            utm = new UserTransactionManager();
            utm.init();
        }

        @Override
        public void begin() throws Exception {
            start();
            utm.begin();
        }

        @Override
        public Connection enlisted(int i) throws Exception {
            return beans.get(i).getConnection();
        }

        @Override
        public void enlist(XAResource resource) throws Exception {
            // Atomikos enlists only what a registered resource can recover.
            Configuration.addResource(new XATransactionalResource(s.node + "-dummy") {
                @Override
                protected XAResource refreshXAConnection() {
                    return resource;
                }
            });
            utm.getTransaction().enlistResource(resource);
        }

        @Override
        public void commit() throws Exception {
            utm.commit();
        }

        @Override
        public void recover() throws Exception {
            // Recovery commits a COMMITTING transaction of the log and writes TERMINATED;
            // an unlogged branch is left alone until this JVM has seen it for max_timeout.
            // performRecovery() returns only after that long, so it runs aside while the
            // log is watched (a minute at most).
            start();
            Thread scan = new Thread(() -> Configuration.getRecoveryService().performRecovery());
            scan.setDaemon(true);
            scan.start();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!allTerminated() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (!allTerminated()) {
                throw new IllegalStateException("Atomikos recovery left COMMITTING records");
            }
        }

        /** Every tid logged COMMITTING has a TERMINATED line after it. */
        private boolean allTerminated() throws java.io.IOException {
            java.util.Set<String> open = new java.util.HashSet<>();
            File[] logs = new File(s.dir).listFiles((d, n) -> n.matches("tmlog\\d*\\.log"));
            if (logs == null) {
                return true;
            }
            java.util.Arrays.sort(logs, java.util.Comparator.comparingLong(File::lastModified));
            for (File log : logs) {
                for (String line : java.nio.file.Files.readAllLines(log.toPath())) {
                    String[] f = line.split("\\|");
                    if (f.length > 1 && f[1].equals("COMMITTING")) {
                        open.add(f[0]);
                    } else if (f.length > 1 && f[1].equals("TERMINATED")) {
                        open.remove(f[0]);
                    }
                }
            }
            return open.isEmpty();
        }
    }
}
