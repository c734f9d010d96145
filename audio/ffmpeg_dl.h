// The FFmpeg functions ffmpeg.c calls, loaded at the first use (fd_load)
// rather than linked: a process that never decodes (furudesk ctl, a window
// over a library already scanned) does not map FFmpeg and the hundred
// libraries it pulls in. Include after the FFmpeg headers.
#ifndef FURUDESK_FFMPEG_DL_H
#define FURUDESK_FFMPEG_DL_H

#define FD_FUNCS(X) \
	X(av_channel_layout_compare) \
	X(av_channel_layout_copy) \
	X(av_channel_layout_default) \
	X(av_channel_layout_describe) \
	X(av_channel_layout_uninit) \
	X(av_dict_free) \
	X(av_dict_get) \
	X(av_dict_set) \
	X(av_find_best_stream) \
	X(av_find_input_format) \
	X(av_frame_alloc) \
	X(av_frame_free) \
	X(av_free) \
	X(av_freep) \
	X(av_get_bytes_per_sample) \
	X(av_log_set_level) \
	X(av_malloc) \
	X(av_malloc_array) \
	X(av_mallocz) \
	X(av_match_name) \
	X(av_packet_alloc) \
	X(av_packet_free) \
	X(av_packet_unref) \
	X(av_read_frame) \
	X(av_realloc_array) \
	X(av_rescale_q) \
	X(av_rescale_rnd) \
	X(av_sample_fmt_is_planar) \
	X(av_seek_frame) \
	X(av_strerror) \
	X(av_version_info) \
	X(avcodec_alloc_context3) \
	X(avcodec_find_decoder) \
	X(avcodec_flush_buffers) \
	X(avcodec_free_context) \
	X(avcodec_get_name) \
	X(avcodec_open2) \
	X(avcodec_parameters_to_context) \
	X(avcodec_receive_frame) \
	X(avcodec_send_packet) \
	X(avcodec_version) \
	X(avformat_alloc_context) \
	X(avformat_close_input) \
	X(avformat_find_stream_info) \
	X(avformat_open_input) \
	X(avformat_seek_file) \
	X(avio_alloc_context) \
	X(avio_context_free) \
	X(avio_feof) \
	X(avio_size) \
	X(swr_alloc_set_opts2) \
	X(swr_convert) \
	X(swr_free) \
	X(swr_get_out_samples) \
	X(swr_init) \
	X(swr_set_matrix) \

#define X(name) extern __typeof__(name) *fd_dl_##name;
FD_FUNCS(X)
#undef X

#define av_channel_layout_compare (*fd_dl_av_channel_layout_compare)
#define av_channel_layout_copy (*fd_dl_av_channel_layout_copy)
#define av_channel_layout_default (*fd_dl_av_channel_layout_default)
#define av_channel_layout_describe (*fd_dl_av_channel_layout_describe)
#define av_channel_layout_uninit (*fd_dl_av_channel_layout_uninit)
#define av_dict_free (*fd_dl_av_dict_free)
#define av_dict_get (*fd_dl_av_dict_get)
#define av_dict_set (*fd_dl_av_dict_set)
#define av_find_best_stream (*fd_dl_av_find_best_stream)
#define av_find_input_format (*fd_dl_av_find_input_format)
#define av_frame_alloc (*fd_dl_av_frame_alloc)
#define av_frame_free (*fd_dl_av_frame_free)
#define av_free (*fd_dl_av_free)
#define av_freep (*fd_dl_av_freep)
#define av_get_bytes_per_sample (*fd_dl_av_get_bytes_per_sample)
#define av_log_set_level (*fd_dl_av_log_set_level)
#define av_malloc (*fd_dl_av_malloc)
#define av_malloc_array (*fd_dl_av_malloc_array)
#define av_mallocz (*fd_dl_av_mallocz)
#define av_match_name (*fd_dl_av_match_name)
#define av_packet_alloc (*fd_dl_av_packet_alloc)
#define av_packet_free (*fd_dl_av_packet_free)
#define av_packet_unref (*fd_dl_av_packet_unref)
#define av_read_frame (*fd_dl_av_read_frame)
#define av_realloc_array (*fd_dl_av_realloc_array)
#define av_rescale_q (*fd_dl_av_rescale_q)
#define av_rescale_rnd (*fd_dl_av_rescale_rnd)
#define av_sample_fmt_is_planar (*fd_dl_av_sample_fmt_is_planar)
#define av_seek_frame (*fd_dl_av_seek_frame)
#define av_strerror (*fd_dl_av_strerror)
#define av_version_info (*fd_dl_av_version_info)
#define avcodec_alloc_context3 (*fd_dl_avcodec_alloc_context3)
#define avcodec_find_decoder (*fd_dl_avcodec_find_decoder)
#define avcodec_flush_buffers (*fd_dl_avcodec_flush_buffers)
#define avcodec_free_context (*fd_dl_avcodec_free_context)
#define avcodec_get_name (*fd_dl_avcodec_get_name)
#define avcodec_open2 (*fd_dl_avcodec_open2)
#define avcodec_parameters_to_context (*fd_dl_avcodec_parameters_to_context)
#define avcodec_receive_frame (*fd_dl_avcodec_receive_frame)
#define avcodec_send_packet (*fd_dl_avcodec_send_packet)
#define avcodec_version (*fd_dl_avcodec_version)
#define avformat_alloc_context (*fd_dl_avformat_alloc_context)
#define avformat_close_input (*fd_dl_avformat_close_input)
#define avformat_find_stream_info (*fd_dl_avformat_find_stream_info)
#define avformat_open_input (*fd_dl_avformat_open_input)
#define avformat_seek_file (*fd_dl_avformat_seek_file)
#define avio_alloc_context (*fd_dl_avio_alloc_context)
#define avio_context_free (*fd_dl_avio_context_free)
#define avio_feof (*fd_dl_avio_feof)
#define avio_size (*fd_dl_avio_size)
#define swr_alloc_set_opts2 (*fd_dl_swr_alloc_set_opts2)
#define swr_convert (*fd_dl_swr_convert)
#define swr_free (*fd_dl_swr_free)
#define swr_get_out_samples (*fd_dl_swr_get_out_samples)
#define swr_init (*fd_dl_swr_init)
#define swr_set_matrix (*fd_dl_swr_set_matrix)

#endif
