"""What every game's training preset (``GameSpec.train_preset``) starts from."""

#: clone the expert bot first (behaviour cloning on 2M of its decisions, 10 epochs), then PPO for 5M learner
#: steps against a mixture of bots and the agent's own snapshots while the imitation weight falls from 1 to 0
CLONE_EXPERT = dict(imitate="expert", pretrain_steps=2_000_000, pretrain_epochs=10, imitate_coef=1.0,
                    imitate_steps=5_000_000, total_steps=5_000_000, lr=1e-4, epochs=2)
