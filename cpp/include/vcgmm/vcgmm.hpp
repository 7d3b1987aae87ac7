// vcgmm: the whole public C++ API in one include.
//
//   common.hpp                  shared types: DataView, RunOptions, phase costs, exceptions
//   assignment.hpp              exact nearest-center labels and quantization error
//   approximate_assignment.hpp  approximate labels at large C (cell index, center graph)
//   lightweight_coreset.hpp     LWCS (Bachem et al. 2018)
//   chunked_coreset.hpp         LWCS in per-chunk steps (out of core, Dask blocks)
//   kmeans_plusplus.hpp         D^2 seeding (Arthur & Vassilvitskii 2007)
//   afkmc2.hpp                  AFK-MC^2 seeding (Bachem et al. 2016)
//   lloyd.hpp                   weighted Lloyd iterations
//   pipeline.hpp                what the one-call pipelines share (params, buffers)
//   kmeans.hpp                  the k-means++ and LWCS baselines in one call
//   minibatch.hpp               mini-batch k-means (mbatch, Sculley 2010)
//   nested_minibatch.hpp        nested mini-batch k-means with bounds (nmbatch)
//   vrkm.hpp                    variance-reduced k-means (VRKM, VRKM++)
//   variational_gmm.hpp         the truncated variational EM loop (var-GMM-S)
//   vc_gmm.hpp                  vc-GMM / var-GMM-S in one call (the headline)
//   gmm_scoring.hpp             exact log-likelihood and top-k posteriors of the GMM
//   kernel_kmeans.hpp           kernel k-means: truncated mini-batch, mini-batch, full batch
//   interrupt.hpp               cooperative interruption
//
// Every header opens with its paper, model, cost, determinism and when to use
// it; measured performance is in docs/user_guide/performance.rst.
// Link with the CMake target vcgmm::core (find_package(vcgmm)).
#pragma once

#include "vcgmm/afkmc2.hpp"
#include "vcgmm/approximate_assignment.hpp"
#include "vcgmm/assignment.hpp"
#include "vcgmm/chunked_coreset.hpp"
#include "vcgmm/common.hpp"
#include "vcgmm/gmm_scoring.hpp"
#include "vcgmm/interrupt.hpp"
#include "vcgmm/kernel_kmeans.hpp"
#include "vcgmm/kmeans.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/lightweight_coreset.hpp"
#include "vcgmm/lloyd.hpp"
#include "vcgmm/minibatch.hpp"
#include "vcgmm/nested_minibatch.hpp"
#include "vcgmm/pipeline.hpp"
#include "vcgmm/variational_gmm.hpp"
#include "vcgmm/vc_gmm.hpp"
#include "vcgmm/vrkm.hpp"
