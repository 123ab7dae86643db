// The seed's Goodreads recommender as a loom-train task (model.kind = "two_tower"): a user
// tower (user embedding -> dense -> swish -> dense) and an item tower (item, language,
// is_ebook, format, publisher and decade embeddings with the average rating and page count ->
// dense -> swish -> dense); the logit is the towers' dot product, the loss sigmoid binary
// cross-entropy. Data: the parts `loom-goodreads prepare` wrote (data.goodreads), streamed
// through a shuffle buffer (frontend/recsys/GoodreadsData.h); evaluation reports the loss and
// the exact ROC AUC over every held-out example.
#ifndef LOOM_FRONTEND_TRAIN_TWOTOWERTASK_H
#define LOOM_FRONTEND_TRAIN_TWOTOWERTASK_H

#include "frontend/train/TrainTask.h"

namespace loom::train {

void validateTwoTowerConfig(const Config &c);

std::unique_ptr<TrainTask> makeTwoTowerTask(const Config &c);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_TWOTOWERTASK_H
