package io.github.distributedlock.autoconfigure;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock advisor runs outside {@code @Transactional} by default, so a transaction
 * commits before its lock is released; {@code distributed-lock.aspect.order} changes
 * that. A real transaction manager on an embedded H2 database.
 */
@ExtendWith(RedisServerExtension.class)
class TransactionOrderTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server).withUserConfiguration(DatabaseConfiguration.class);
	}

	@Test
	void shouldCommitBeforeReleasingTheLockByDefault() {
		this.contextRunner.withUserConfiguration(DefaultTransactionOrder.class).run((context) -> {
			Orders orders = context.getBean(Orders.class);
			assertThat(orders.place("o-1")).as("the lock is held inside the transaction").isTrue();
			ReleaseProbe probe = context.getBean(ReleaseProbe.class);
			assertThat(probe.committedWhenReleased).containsEntry("o-1", true);
			assertThat(orders.lockedWhenCommitted()).containsEntry("o-1", true);
		});
	}

	@Test
	void shouldReleaseBeforeTheCommitWhenTheLockIsOrderedInsideTheTransaction() {
		this.contextRunner.withUserConfiguration(EarlyTransactionOrder.class)
			.withPropertyValues("distributed-lock.aspect.order=10")
			.run((context) -> {
				Orders orders = context.getBean(Orders.class);
				assertThat(orders.place("o-2")).isTrue();
				assertThat(context.getBean(ReleaseProbe.class).committedWhenReleased).containsEntry("o-2", false);
				assertThat(orders.lockedWhenCommitted()).containsEntry("o-2", false);
			});
	}

	@Test
	void shouldCommitFirstAgainWhenTheOrderIsBelowTheTransactions() {
		this.contextRunner.withUserConfiguration(EarlyTransactionOrder.class)
			.withPropertyValues("distributed-lock.aspect.order=-10")
			.run((context) -> {
				Orders orders = context.getBean(Orders.class);
				assertThat(orders.place("o-3")).isTrue();
				assertThat(context.getBean(ReleaseProbe.class).committedWhenReleased).containsEntry("o-3", true);
				assertThat(orders.lockedWhenCommitted()).containsEntry("o-3", true);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class DatabaseConfiguration {

		@Bean(destroyMethod = "shutdown")
		EmbeddedDatabase dataSource() {
			EmbeddedDatabase database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.build();
			new JdbcTemplate(database).execute("create table orders (id varchar(20) primary key)");
			return database;
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		ReleaseProbe releaseProbe(DataSource dataSource) {
			return new ReleaseProbe(dataSource);
		}

		@Bean
		Orders orders(DataSource dataSource, ObjectProvider<LockTemplate> lockTemplate) {
			return new Orders(new JdbcTemplate(dataSource), lockTemplate);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class DefaultTransactionOrder {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = 0)
	static class EarlyTransactionOrder {

	}

	/**
	 * Looks, from a connection of its own, whether the order is committed at the moment
	 * its lock is released.
	 */
	static class ReleaseProbe implements LockListener {

		final Map<String, Boolean> committedWhenReleased = new ConcurrentHashMap<>();

		private final DataSource dataSource;

		ReleaseProbe(DataSource dataSource) {
			this.dataSource = dataSource;
		}

		@Override
		public void released(LockContext context, Duration heldFor) {
			String id = context.name().key();
			try (Connection connection = this.dataSource.getConnection();
					PreparedStatement query = connection.prepareStatement("select count(*) from orders where id = ?")) {
				query.setString(1, id);
				try (ResultSet result = query.executeQuery()) {
					result.next();
					this.committedWhenReleased.put(id, result.getInt(1) == 1);
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	static class Orders {

		final Map<String, Boolean> lockedWhenCommitted = new ConcurrentHashMap<>();

		private final JdbcTemplate jdbc;

		private final ObjectProvider<LockTemplate> lockTemplate;

		Orders(JdbcTemplate jdbc, ObjectProvider<LockTemplate> lockTemplate) {
			this.jdbc = jdbc;
			this.lockTemplate = lockTemplate;
		}

		Map<String, Boolean> lockedWhenCommitted() {
			return this.lockedWhenCommitted;
		}

		@Transactional
		@DistributedLock(scope = "orders", key = "#id")
		public boolean place(String id) {
			this.jdbc.update("insert into orders (id) values (?)", id);
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					Orders.this.lockedWhenCommitted.put(id,
							Orders.this.lockTemplate.getObject().isLocked("orders", id));
				}

			});
			return TransactionSynchronizationManager.isActualTransactionActive() && LockContext.find().isPresent();
		}

	}

}
